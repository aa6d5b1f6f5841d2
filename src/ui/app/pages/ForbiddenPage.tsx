import { MSG } from '../../../contracts/messages.js';
import { StatusPage } from './StatusPage.js';

/** Signed in, but the role is too weak for this route. */
export function ForbiddenPage() {
  return <StatusPage code="403" text={MSG.forbidden} title="403" className="app-forbidden" />;
}
export default ForbiddenPage;
