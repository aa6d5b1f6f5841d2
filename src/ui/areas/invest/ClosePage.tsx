/** /invest/bound_close: bonds whose maturity or offer is near (invest.Item.getBondsNextClose), the screener's layout. */
import { BondsList } from './BondsList.js';

export default function ClosePage() {
  return <BondsList mode="close" />;
}
