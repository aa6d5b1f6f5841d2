/** /invest/bounds_screener (001 §2, §9): the bonds catalogue with filters in the URL, 15 a page. */
import { BondsList } from './BondsList.js';

export default function ScreenerPage() {
  return <BondsList mode="screener" />;
}
