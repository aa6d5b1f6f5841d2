import { Link } from 'react-router-dom';
import { useDocumentTitle } from '../../kit/PageTitle.js';

/** A full-page status (404, 403): big code, one line of text, a link home. */
export function StatusPage({ code, text, title, className }: { code: string; text: string; title: string; className: string }) {
  useDocumentTitle(title);
  return (
    <div className={`text-center py-5 ${className}`}>
      <h1 className="display-4 fw-bold text-secondary mb-1">{code}</h1>
      <p className="fs-5 mb-3">{text}</p>
      <Link to="/" className="btn btn-outline-primary btn-sm">
        Home
      </Link>
    </div>
  );
}
