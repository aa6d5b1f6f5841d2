import { PageTitle } from '../../kit/PageTitle.js';

export default function AuditPage() {
  return <PageTitle title="Audit" />;
}
