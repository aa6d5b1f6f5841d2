import { Link } from 'react-router-dom';
import { MSG } from '../../../contracts/messages.js';
import { useDocumentTitle } from '../../kit/PageTitle.js';

/** Signed in, but the role is too weak for this route. */
export function ForbiddenPage() {
  useDocumentTitle('403');
  return (
    <div className="text-center py-5 app-forbidden">
      <h1 className="display-4 fw-bold text-secondary mb-1">403</h1>
      <p className="fs-5 mb-3">{MSG.forbidden}</p>
      <Link to="/" className="btn btn-outline-primary btn-sm">
        Home
      </Link>
    </div>
  );
}
export default ForbiddenPage;
