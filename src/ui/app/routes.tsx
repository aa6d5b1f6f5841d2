import type { ReactElement } from 'react';
import { Role } from '../../contracts/roles.js';
import { lazyPage } from './lazyPage.js';

/**
 * THE route table: router, menu and role checks all read it. One line per page:
 *
 *   { path: '/srv/srv_map', element: lazyPage(loadSrvMapPage) },
 *
 * - The role a route needs comes from roleForPath() in src/contracts/menu.ts (the longest MENU path
 *   that is the route's path or a parent of it). Set `role` only for a screen stronger than that
 *   (e.g. /input_stream/sites under the any-user /input_stream). The guard renders the 403 page,
 *   and nothing of the screen, to a weaker role.
 * - A MENU item (src/contracts/menu.ts) is shown once a route with exactly its path exists here and
 *   the user's role allows it.
 * - `title` is the tab title; when missing, the MENU label of the path is used.
 * - `public: true` only for screens reachable without a session; `guestOnly: true` for the ones a
 *   signed-in user has no use for (/auth, /register): they send a session home.
 * - Paths use react-router syntax: '/cfg/app_cron/edit/:Id', '/monitor/:cat'.
 */
export interface AppRoute {
  path: string;
  element: ReactElement;
  title?: string;
  /** The role this screen needs when stronger than roleForPath(path) (lower is stronger). */
  role?: number;
  public?: boolean;
  /** Public, and a signed-in user is sent home (/register: no sign-up form inside the signed-in layout). */
  guestOnly?: boolean;
}

/**
 * Pages behind more than one route: one loader each, so that once one of their routes has loaded the
 * module, the others render it at once (lazyPage), e.g. /srv/srv_map/12 handing over to /srv/srv_map?server=12.
 */
const loadSrvMapPage = () => import('../areas/srv/SrvMapPage.js');
const loadCronEditPage = () => import('../areas/cron/CronEditPage.js');
const loadMonitorPage = () => import('../areas/monitor/MonitorPage.js');
const loadMonitor2Page = () => import('../areas/monitor/Monitor2Page.js');
const loadDeployPage = () => import('../areas/deploy/DeployPage.js');
const loadBookEditPage = () => import('../areas/books/BookEditPage.js');
const loadCompilationEditPage = () => import('../areas/compilations/CompilationEditPage.js');
const loadAskEditPage = () => import('../areas/ask/AskEditPage.js');
const loadBannerEditPage = () => import('../areas/banners/BannerEditPage.js');
const loadHostEditPage = () => import('../areas/network-info/HostEditPage.js');
const loadPageEditPage = () => import('../areas/network-info/PageEditPage.js');
const loadCatEditPage = () => import('../areas/network-info/CatEditPage.js');
const loadSearchHostEditPage = () => import('../areas/search/SearchHostEditPage.js');
const loadSourceEditPage = () => import('../areas/search/SourceEditPage.js');
const loadTodoEditPage = () => import('../areas/todo/TodoEditPage.js');
const loadBoxEditPage = () => import('../areas/money/BoxEditPage.js');
const loadTransactionEditPage = () => import('../areas/money/TransactionEditPage.js');

export const routes: AppRoute[] = [
  { path: '/', element: lazyPage(() => import('./pages/HomePage.js')), title: 'Home' },
  { path: '/auth', element: lazyPage(() => import('../areas/auth/AuthPage.js')), title: 'Sign in', public: true },
  { path: '/register', element: lazyPage(() => import('../areas/auth/RegisterPage.js')), title: 'Register', public: true, guestOnly: true },
  { path: '/logout', element: lazyPage(() => import('./pages/LogoutPage.js')), title: 'Logout', public: true },
  { path: '/kit', element: lazyPage(() => import('./pages/KitPage.js')), title: 'UI kit' },

  // Admin
  { path: '/users', element: lazyPage(() => import('../areas/admin/UsersPage.js')), title: 'Users' },
  { path: '/audit', element: lazyPage(() => import('../areas/admin/AuditPage.js')), title: 'Audit' },

  // Areas: add one line per page below.
  { path: '/srv/srv_map', element: lazyPage(loadSrvMapPage) },
  { path: '/srv/srv_map/:Id', element: lazyPage(loadSrvMapPage), title: 'Servers map' },
  { path: '/srv/ssl_check', element: lazyPage(() => import('../areas/srv/SslCheckPage.js')) },
  { path: '/srv/configs_global', element: lazyPage(() => import('../areas/srv/ConfigsGlobalPage.js')) },
  { path: '/cfg/app_cron', element: lazyPage(() => import('../areas/cron/CronListPage.js')) },
  { path: '/cfg/app_cron/add', element: lazyPage(loadCronEditPage), title: 'Add new job' },
  { path: '/cfg/app_cron/edit/:Id', element: lazyPage(loadCronEditPage), title: 'Cron task' },
  { path: '/firewall', element: lazyPage(() => import('../areas/firewall/TrafficPage.js')) },
  { path: '/firewall/processing_logs', element: lazyPage(() => import('../areas/firewall/IpStatsPage.js')) },
  { path: '/firewall/iptables_rules', element: lazyPage(() => import('../areas/firewall/IpRulesPage.js')) },
  { path: '/firewall/iptables_block_list', element: lazyPage(() => import('../areas/firewall/BlockListPage.js')) },
  { path: '/firewall/train_data', element: lazyPage(() => import('../areas/firewall/TrainDataPage.js')) },
  { path: '/monitor', element: lazyPage(loadMonitorPage) },
  { path: '/monitor/:cat', element: lazyPage(loadMonitorPage), title: 'Monitor' },
  { path: '/monitor2', element: lazyPage(loadMonitor2Page) },
  { path: '/srv/terminal', element: lazyPage(() => import('../areas/terminal/TerminalsPage.js')) },
  { path: '/srv/MassTerminal', element: lazyPage(() => import('../areas/terminal/MassTerminalPage.js')) },
  { path: '/srv/terminal/recordings', element: lazyPage(() => import('../areas/terminal/RecordingsPage.js')) },
  { path: '/srv/terminal/recordings/:Id', element: lazyPage(() => import('../areas/terminal/ReplayPage.js')), title: 'Recording' },
  { path: '/srv/deploy', element: lazyPage(loadDeployPage) },
  { path: '/srv/deploy/:type', element: lazyPage(loadDeployPage), title: 'Deploy' },
  { path: '/srv/console', element: lazyPage(() => import('../areas/deploy/ServerConsolePage.js')) },
  { path: '/monitor2/:cat', element: lazyPage(loadMonitor2Page), title: 'Node load' },
  { path: '/logs', element: lazyPage(() => import('../areas/logs/LogsPage.js')) },
  { path: '/logs/open', element: lazyPage(() => import('../areas/logs/LogOpenPage.js')), title: 'Log file' },
  { path: '/logs/apps', element: lazyPage(() => import('../areas/logs/AppLogsPage.js')) },
  { path: '/book/list', element: lazyPage(() => import('../areas/books/BookListPage.js')) },
  { path: '/book/edit', element: lazyPage(loadBookEditPage) },
  { path: '/book/edit/open/:Id_book', element: lazyPage(loadBookEditPage), title: 'Book edit' },
  { path: '/book/block', element: lazyPage(() => import('../areas/books/BlockPage.js')) },
  { path: '/book/block_git', element: lazyPage(() => import('../areas/books/BlockGitPage.js')) },
  { path: '/book/categories', element: lazyPage(() => import('../areas/categories/CategoriesPage.js')) },
  { path: '/book/categories/edit/:Id_edit', element: lazyPage(() => import('../areas/categories/CategoryEditPage.js')), title: 'Category' },
  { path: '/book_cat', element: lazyPage(() => import('../areas/categories/BookCatPage.js')), title: 'Categories' },
  { path: '/book_cat/:Id_cat', element: lazyPage(() => import('../areas/categories/BookCatViewPage.js')), title: 'Category' },
  { path: '/input_stream', element: lazyPage(() => import('../areas/input-stream/InputStreamPage.js')) },
  { path: '/input_stream/cat', element: lazyPage(() => import('../areas/input-stream/StreamCatsPage.js')), title: 'Input stream: categories' },
  { path: '/input_stream/items', element: lazyPage(() => import('../areas/input-stream/StreamItemsPage.js')), title: 'Input stream: items' },
  { path: '/input_stream/cat/:id', element: lazyPage(() => import('../areas/input-stream/StreamCatPage.js')), title: 'Input stream: category' },
  { path: '/input_stream/sites', element: lazyPage(() => import('../areas/input-stream/StreamSitesPage.js')), title: 'Input stream: sites', role: Role.admin },
  { path: '/author/marge', element: lazyPage(() => import('../areas/authors/AuthorsMergePage.js')) },
  { path: '/content/authors', element: lazyPage(() => import('../areas/authors/AuthorsPage.js')), title: 'Authors' },
  { path: '/compilation', element: lazyPage(() => import('../areas/compilations/CompilationListPage.js')) },
  { path: '/compilation/add', element: lazyPage(loadCompilationEditPage), title: 'New compilation' },
  { path: '/compilation/edit/:Id_compilation', element: lazyPage(loadCompilationEditPage), title: 'Compilation' },
  { path: '/content/ask', element: lazyPage(() => import('../areas/ask/AskListPage.js')) },
  { path: '/ask/add', element: lazyPage(loadAskEditPage), title: 'New ask', role: Role.content },
  { path: '/ask/edit/:id', element: lazyPage(loadAskEditPage), title: 'Ask', role: Role.content },
  { path: '/content/cat_jokes', element: lazyPage(() => import('../areas/jokes/JokeCatsPage.js')) },
  { path: '/jokes/cat_edit/:id', element: lazyPage(() => import('../areas/jokes/JokeCatEditPage.js')), title: 'Joke category', role: Role.content },
  { path: '/sonnik/index', element: lazyPage(() => import('../areas/sonnik/SonnikIndexPage.js')) },
  { path: '/sonnik/cat', element: lazyPage(() => import('../areas/sonnik/SonnikCatsPage.js')), title: 'Sonnik categories', role: Role.content },
  { path: '/sonnik/cat/edit/:Id_edit', element: lazyPage(() => import('../areas/sonnik/SonnikCatEditPage.js')), title: 'Sonnik category', role: Role.content },
  { path: '/worker', element: lazyPage(() => import('../areas/workers/WorkersPage.js')) },
  { path: '/service/clear_empty_line', element: lazyPage(() => import('../areas/tools/ClearEmptyLinePage.js')) },
  { path: '/content/cat_weight_sort', element: lazyPage(() => import('../areas/categories/CatWeightSortPage.js')) },
  { path: '/comments', element: lazyPage(() => import('../areas/tools/CommentsPage.js')) },
  { path: '/privacy', element: lazyPage(() => import('../areas/tools/PrivacyPage.js')), title: 'Privacy policy', public: true },
  { path: '/abs/list', element: lazyPage(() => import('../areas/banners/BannersListPage.js')) },
  { path: '/abs/add', element: lazyPage(loadBannerEditPage), title: 'Add new block', role: Role.content },
  { path: '/abs/edit/:Idb', element: lazyPage(loadBannerEditPage), title: 'Banner' },
  { path: '/network_info', element: lazyPage(() => import('../areas/network-info/NetworkInfoPage.js')) },
  { path: '/network_info/hosts', element: lazyPage(() => import('../areas/network-info/HostsPage.js')), title: 'Network hosts' },
  { path: '/network_info/hosts/create', element: lazyPage(loadHostEditPage), title: 'New host' },
  { path: '/network_info/hosts/edit/:Id', element: lazyPage(loadHostEditPage), title: 'Host' },
  { path: '/network_info/pages', element: lazyPage(() => import('../areas/network-info/PagesPage.js')), title: 'Network pages' },
  { path: '/network_info/pages/create', element: lazyPage(loadPageEditPage), title: 'New page' },
  { path: '/network_info/pages/edit/:Id', element: lazyPage(loadPageEditPage), title: 'Page' },
  { path: '/network_info/cats', element: lazyPage(() => import('../areas/network-info/CatsPage.js')), title: 'Network categories' },
  { path: '/network_info/cats/create', element: lazyPage(loadCatEditPage), title: 'New category' },
  { path: '/network_info/cats/edit/:Id', element: lazyPage(loadCatEditPage), title: 'Category' },
  { path: '/search', element: lazyPage(() => import('../areas/search/SearchHostsPage.js')) },
  { path: '/search/add_host', element: lazyPage(loadSearchHostEditPage), title: 'Add search host', role: Role.admin },
  { path: '/search/edit_host/:Id', element: lazyPage(loadSearchHostEditPage), title: 'Search host', role: Role.admin },
  { path: '/search/sources', element: lazyPage(() => import('../areas/search/SourcesPage.js')), title: 'Sources' },
  { path: '/search/add_source', element: lazyPage(loadSourceEditPage), title: 'Add source', role: Role.admin },
  { path: '/search/edit_source/:Id', element: lazyPage(loadSourceEditPage), title: 'Source', role: Role.admin },
  { path: '/todo', element: lazyPage(() => import('../areas/todo/TodoListPage.js')) },
  { path: '/todo/create', element: lazyPage(loadTodoEditPage), title: 'New todo' },
  { path: '/todo/show/:Id', element: lazyPage(() => import('../areas/todo/TodoShowPage.js')), title: 'Todo' },
  { path: '/todo/edit/:Id', element: lazyPage(loadTodoEditPage), title: 'Edit todo' },
  { path: '/money', element: lazyPage(() => import('../areas/money/MoneyPage.js')) },
  { path: '/money/add', element: lazyPage(loadBoxEditPage), title: 'New box' },
  { path: '/money/box/:bid', element: lazyPage(() => import('../areas/money/BoxPage.js')), title: 'Money box' },
  { path: '/money/box/:bid/edit', element: lazyPage(loadBoxEditPage), title: 'Edit box' },
  { path: '/money/box/:bid/add_transaction', element: lazyPage(loadTransactionEditPage), title: 'Add transaction' },
  { path: '/money/box/:bid/edit_transaction/:trid', element: lazyPage(loadTransactionEditPage), title: 'Edit transaction' },
  { path: '/money/box/:bid/clone_transaction/:clonetrid', element: lazyPage(loadTransactionEditPage), title: 'Clone transaction' },
  { path: '/money/report/:bid', element: lazyPage(() => import('../areas/money/ReportPage.js')), title: 'Money report' },
  { path: '/invest', element: lazyPage(() => import('../areas/invest/InvestPage.js')) },
  { path: '/invest/account/:id', element: lazyPage(() => import('../areas/invest/AccountPage.js')), title: 'Investment account' },
  { path: '/invest/account/:id/model', element: lazyPage(() => import('../areas/invest/ModelPage.js')), title: 'Coupon forecast' },
  { path: '/invest/account_local/:Id', element: lazyPage(() => import('../areas/invest/LocalAccountPage.js')), title: 'Local account' },
  { path: '/invest/bounds_screener', element: lazyPage(() => import('../areas/invest/ScreenerPage.js')), title: 'Bonds screener' },
  { path: '/invest/bound_close', element: lazyPage(() => import('../areas/invest/ClosePage.js')), title: 'Bonds closing soon' },
  { path: '/wb', element: lazyPage(() => import('../areas/wb/WbPage.js')), title: 'Marketplace' },
  { path: '/position/projects', element: lazyPage(() => import('../areas/position/ProjectsPage.js')) },
  { path: '/position/project/:id', element: lazyPage(() => import('../areas/position/ProjectPage.js')), title: 'Position project' },
  { path: '/report/list', element: lazyPage(() => import('../areas/report/ReportListPage.js')), title: 'Reports' },
  { path: '/ant', element: lazyPage(() => import('../areas/ant/AntPage.js')), title: 'Ant v2' },
  { path: '/proxy/add', element: lazyPage(() => import('../areas/ant/ProxyAddPage.js')) },
];
