import { MSG } from '../../../contracts/messages.js';
import { StatusPage } from './StatusPage.js';

/** Unknown route (000 §2, 001 §2): '404' and 'Page not found'. */
export function NotFoundPage() {
  return <StatusPage code={MSG.notFoundTitle} text={MSG.notFoundText} title={MSG.notFoundText} className="app-not-found" />;
}
export default NotFoundPage;
