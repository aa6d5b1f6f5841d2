import { Role } from './roles.js';

/**
 * The menu of 001 §2 "Menu", with the roles of 000 §6 and 001 §6 (lower is stronger; no role = every
 * signed-in user). One table: the UI's router, menu and route guards read it, and the server's
 * role for each area's methods matches it (the role-matrix test checks the server side).
 * `path` is the screen's route; the UI lists an item only once its screen exists.
 */
export interface MenuItem {
  path: string;
  label: string;
  role?: number;
}
export interface MenuGroup {
  label: string;
  role?: number;
  items: MenuItem[];
}

export const MENU: MenuGroup[] = [
  { label: 'Monitoring', items: [{ path: '/monitor', label: 'Monitor' }, { path: '/monitor2', label: 'Node load' }] },
  {
    label: 'Firewall', role: Role.admin,
    items: [
      { path: '/firewall', label: 'Traffic' },
      { path: '/firewall/processing_logs', label: 'IP statistics' },
      { path: '/firewall/iptables_rules', label: 'IP rules' },
      { path: '/firewall/iptables_block_list', label: 'Block list' },
      { path: '/firewall/train_data', label: 'Train data' },
    ],
  },
  {
    label: 'Cluster', role: Role.admin,
    items: [
      { path: '/srv/srv_map', label: 'Servers map' },
      { path: '/srv/configs_global', label: 'Cluster configs' },
      { path: '/srv/terminal', label: 'Terminals' },
      { path: '/srv/MassTerminal', label: 'Mass terminal' },
      { path: '/srv/terminal/recordings', label: 'Terminal recordings' },
      { path: '/srv/deploy', label: 'Deploy' },
      { path: '/srv/console', label: 'Server console' },
      { path: '/cfg/app_cron', label: 'Cron' },
      { path: '/srv/ssl_check', label: 'SSL check' },
    ],
  },
  {
    label: 'Business',
    items: [
      { path: '/wb', label: 'Marketplace' },
      { path: '/position/projects', label: 'Positions' },
      { path: '/report/list', label: 'Reports' },
      { path: '/abs/list', label: 'Banners' },
      { path: '/todo', label: 'Todo' },
      { path: '/search', label: 'Search nodes' },
      { path: '/input_stream', label: 'Input stream' },
      { path: '/network_info', label: 'Network info', role: Role.admin },
      // 001 §6 lists money among the admins' items; issue 21 makes money a personal tool of every back-office
      // user (their own boxes and those an admin shared with them; the server checks each box): docs/money.md
      { path: '/money', label: 'Money' },
      { path: '/ant', label: 'Ant', role: Role.admin },
      { path: '/comments', label: 'Comments', role: Role.admin },
      { path: '/proxy/add', label: 'Proxy add', role: Role.admin },
      // 001 §6 does not list investments among the admins' items: every signed-in user (local accounts are
      // personal; the on-demand catalogue refresh is admins only): docs/invest.md "Roles"
      { path: '/invest', label: 'Invest' },
    ],
  },
  {
    label: 'Content',
    items: [
      { path: '/compilation', label: 'Compilations', role: Role.content },
      { path: '/content/cat_weight_sort', label: 'Cat weight sort', role: Role.content },
      { path: '/book/categories', label: 'Book categories', role: Role.content },
      { path: '/book/list', label: 'Books', role: Role.content },
      { path: '/sonnik/index', label: 'Sonnik', role: Role.content },
      { path: '/content/cat_jokes', label: 'Jokes categories', role: Role.content },
      { path: '/book/edit', label: 'Book edit', role: Role.content },
      { path: '/book/block', label: 'Block book', role: Role.admin },
      { path: '/book/block_git', label: 'Block git', role: Role.admin },
      { path: '/author/marge', label: 'Authors merge' },
      { path: '/content/ask', label: 'Ask' },
      { path: '/service/clear_empty_line', label: 'Clear empty lines' },
    ],
  },
  {
    label: 'Logs', role: Role.admin,
    items: [
      { path: '/logs/apps', label: 'App logs' },
      { path: '/logs', label: 'Node logs' },
    ],
  },
  {
    label: 'Admin', role: Role.admin,
    items: [
      { path: '/users', label: 'Users' },
      { path: '/audit', label: 'Audit' },
      { path: '/worker', label: 'Workers' },
    ],
  },
];

/**
 * The role a path needs: that of the longest item path equal to it or a parent of it (its item's
 * role, else its group's), else none (any signed-in user).
 */
export function roleForPath(path: string): number | undefined {
  let best: { len: number; role: number | undefined } | undefined;
  for (const g of MENU) {
    for (const i of g.items) {
      if ((path === i.path || path.startsWith(i.path + '/')) && (!best || i.path.length > best.len)) best = { len: i.path.length, role: i.role ?? g.role };
    }
  }
  return best?.role;
}
