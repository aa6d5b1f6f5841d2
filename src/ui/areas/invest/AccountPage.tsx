/** /invest/account/:id: a broker account's bonds, or the fixed sample ('sample') (001 §2 "Account screens"). */
import { Link, useParams } from 'react-router-dom';
import { INVEST_ROUTES } from '../../../contracts/invest.js';
import { PageTitle } from '../../kit/index.js';
import { PortfolioView } from './PortfolioView.js';

export default function AccountPage() {
  const id = useParams().id ?? '';
  return (
    <>
      <div className="mb-2"><Link to={INVEST_ROUTES.index}>← All accounts</Link></div>
      <PortfolioView
        key={id}
        accountId={id}
        header={(name) => (
          <PageTitle title={name} actions={<Link className="btn btn-sm btn-outline-primary" to={INVEST_ROUTES.accountModel(id)}>Coupon forecast</Link>} />
        )}
      />
    </>
  );
}
