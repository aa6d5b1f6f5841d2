import { PageTitle } from '../../kit/PageTitle.js';

export default function UsersPage() {
  return <PageTitle title="Users" />;
}
