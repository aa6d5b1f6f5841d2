import { Link } from 'react-router-dom';
import { MSG } from '../../../contracts/messages.js';
import { useDocumentTitle } from '../../kit/PageTitle.js';

/** Unknown route (000 §2, 001 §2): '404' and 'Page not found'. */
export function NotFoundPage() {
  useDocumentTitle(MSG.notFoundText);
  return (
    <div className="text-center py-5 app-not-found">
      <h1 className="display-4 fw-bold text-secondary mb-1">{MSG.notFoundTitle}</h1>
      <p className="fs-5 mb-3">{MSG.notFoundText}</p>
      <Link to="/" className="btn btn-outline-primary btn-sm">
        Home
      </Link>
    </div>
  );
}
export default NotFoundPage;
