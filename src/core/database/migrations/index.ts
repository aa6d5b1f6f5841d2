import { Platform1700000000000 } from './1700000000000-platform.js';
import { Srv1710000000000 } from './1710000000000-srv.js';
import { Cron1720000000000 } from './1720000000000-cron.js';
import { AuditTarget1730000000000 } from './1730000000000-audit-target.js';
import { Hardening1745000000000 } from './1745000000000-hardening.js';
import { Firewall1760000000000 } from './1760000000000-firewall.js';
import { FirewallTrain1770000000000 } from './1770000000000-firewall-train.js';
import { FirewallFeatures1775000000000 } from './1775000000000-firewall-features.js';
import { FirewallFeatureSums1776000000000 } from './1776000000000-firewall-feature-sums.js';
import { Monitoring1780000000000 } from './1780000000000-monitoring.js';
import { Terminal1790000000000 } from './1790000000000-terminal.js';
import { Deploy1791000000000 } from './1791000000000-deploy.js';
import { Agent1795000000000 } from './1795000000000-agent.js';
import { Content1800000000000 } from './1800000000000-content.js';
import { InputStream1801000000000 } from './1801000000000-input-stream.js';
import { AuthorMerges1802000000000 } from './1802000000000-author-merges.js';
import { Banners1805000000000 } from './1805000000000-banners.js';
import { WorkersCatWeight1806000000000 } from './1806000000000-workers-cat-weight.js';
import { Comments1806100000000 } from './1806100000000-comments.js';
import { Compilations1803000000000 } from './1803000000000-compilations.js';
import { ContentExtra1804000000000 } from './1804000000000-content-extra.js';
import { StorageFiles1807000000000 } from './1807000000000-storage-files.js';
import { NetworkInfo1808000000000 } from './1808000000000-network-info.js';
import { SearchNodes1809000000000 } from './1809000000000-search-nodes.js';
import { OutsideCache1810000000000 } from './1810000000000-outside-cache.js';

/** Every migration, in order. Areas append theirs here; they run at start. */
export const MIGRATIONS = [Platform1700000000000, Srv1710000000000, Cron1720000000000, AuditTarget1730000000000, Hardening1745000000000, Firewall1760000000000, FirewallTrain1770000000000, FirewallFeatures1775000000000, FirewallFeatureSums1776000000000, Monitoring1780000000000, Terminal1790000000000, Deploy1791000000000, Agent1795000000000, Content1800000000000, InputStream1801000000000, AuthorMerges1802000000000, Compilations1803000000000, ContentExtra1804000000000, Banners1805000000000, WorkersCatWeight1806000000000, Comments1806100000000, StorageFiles1807000000000, NetworkInfo1808000000000, SearchNodes1809000000000, OutsideCache1810000000000];
