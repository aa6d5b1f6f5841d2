/** Typed RPC methods of the servers and cluster area (declaration merging into the UI's RpcMethods). */
import type {
  ClusterConfigView, DomainView, ServersMap, ServerView, SslHostView, SshTestResult, UpstreamPreview,
} from '../../../contracts/srv.js';

export interface ServerSaveInput {
  Id?: number;
  name?: string;
  type?: number;
  cod?: number;
  status?: number;
  ip?: string;
  ip_local?: string;
  sshlogin?: string;
  sshport?: number;
  sshpass?: string;
  sshpass_clear?: boolean;
  private_key?: string;
  private_key_pass?: string;
  private_key_clear?: boolean;
  cluster_key?: string;
  cluster_key_clear?: boolean;
  number_in_nginx?: number;
  balance_db?: number;
  balance_cache?: number;
  balance_memcache?: number;
  balance_web?: number;
  read_nginx_log_firewall?: number;
  nginx_log?: string;
  agent_url?: string;
}

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'srv.get': { args: { Id: number }; result: ServerView };
    'srv.getList': { args: { type?: number | number[] } | void; result: ServerView[] };
    'srv.servers_map': { args: void; result: ServersMap };
    'srv.save_server': { args: ServerSaveInput; result: { Id: number } };
    'srv.clone_server': { args: { clone_by: number; name?: string }; result: { Id: number; name: string } };
    'srv.remove_server_by_id': { args: { Id: number; get_map?: boolean }; result: ServersMap | { Id: number; message: string } };
    'srv.test_connect_ssh': { args: { Id: number }; result: SshTestResult };
    'srv.acceptHostKey': { args: { Id: number; fingerprint?: string }; result: { fingerprint: string; previous: string } };
    'srv.nginxUpstream': { args: void; result: UpstreamPreview };
    'srv.getSslHosts': { args: void; result: SslHostView[] };
    'srv.sslUpdateHost': { args: { Id?: number; host?: string; not_check?: number }; result: { Id: number } };
    'srv.sslDeleteById': { args: { Id: number }; result: { Id: number; message: string } };
    'srv.sslCheckHost': { args: { Id: number }; result: SslHostView };
    'srv.sslCheckAll': { args: void; result: SslHostView[] };
    'cfg.getConfigs': { args: { type?: string } | void; result: ClusterConfigView[] };
    'cfg.getDomains': { args: void; result: DomainView[] };
    'cfg.insertConfigsBatch': { args: Array<{ type: string; value: string }>; result: { message: string; count: number; list: ClusterConfigView[] } };
    'cfg.updateConfigsBatch': { args: ClusterConfigView[]; result: { message: string; count: number } };
    'cfg.removeConfigs': { args: number[]; result: { message: string; count: number } };
  }
}
