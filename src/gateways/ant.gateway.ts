import { ConnectedSocket, MessageBody, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { Socket } from 'socket.io';
import type { AntOperatorMessage } from '../contracts/ant.js';
import type { Envelope } from '../contracts/envelope.js';
import { Role } from '../contracts/roles.js';
import { RequireRole, type Actor } from '../core/auth/actor.js';
import { RpcRegistry } from '../core/rpc/rpc.registry.js';

/**
 * The operators' ant channel (001 §7 "Realtime (ant)": the messages sent; issue 24), admins only: each
 * message runs the RPC method `ant.<message>` through the registry (validation, audit of the
 * state-changing ones; the session and role are checked by the socket guard on every message) and
 * acknowledges with its envelope {status: 'ok', result}. The events received (worker_status,
 * ant_change, task_list, ...) go to the admins' room from AntHubService. Ants speak on their own
 * namespace (contracts/ant.ts ANT_NAMESPACE) and cannot reach these.
 */
@WebSocketGateway()
@RequireRole(Role.admin)
export class AntGateway {
  constructor(private readonly registry: RpcRegistry) {}

  private call(name: AntOperatorMessage, client: Socket, args: unknown): Promise<Envelope> {
    return this.registry.call(`ant.${name}`, args ?? {}, { actor: client.data.actor as Actor });
  }

  @SubscribeMessage('get_worker_status')
  getWorkerStatus(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('get_worker_status', c, body);
  }

  @SubscribeMessage('worker_start')
  workerStart(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('worker_start', c, body);
  }

  @SubscribeMessage('worker_stop')
  workerStop(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('worker_stop', c, body);
  }

  @SubscribeMessage('get_only_step')
  getOnlyStep(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('get_only_step', c, body);
  }

  @SubscribeMessage('set_only_step')
  setOnlyStep(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('set_only_step', c, body);
  }

  @SubscribeMessage('ant_get_task_list')
  antGetTaskList(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('ant_get_task_list', c, body);
  }

  @SubscribeMessage('reload_task_list')
  reloadTaskList(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('reload_task_list', c, body);
  }

  @SubscribeMessage('get_list_connections')
  getListConnections(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('get_list_connections', c, body);
  }

  @SubscribeMessage('ant_stop_all')
  antStopAll(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('ant_stop_all', c, body);
  }

  @SubscribeMessage('ant_start')
  antStart(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('ant_start', c, body);
  }

  @SubscribeMessage('ant_stop')
  antStop(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('ant_stop', c, body);
  }

  @SubscribeMessage('ant_restart_all')
  antRestartAll(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('ant_restart_all', c, body);
  }

  @SubscribeMessage('ant_reload')
  antReload(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('ant_reload', c, body);
  }

  @SubscribeMessage('server.get_status_used_proxy')
  serverGetStatusUsedProxy(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('server.get_status_used_proxy', c, body);
  }

  @SubscribeMessage('server.set_status_used_proxy')
  serverSetStatusUsedProxy(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('server.set_status_used_proxy', c, body);
  }

  @SubscribeMessage('task.getStats')
  taskGetStats(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('task.getStats', c, body);
  }

  @SubscribeMessage('get_proxy_list')
  getProxyList(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('get_proxy_list', c, body);
  }

  @SubscribeMessage('update_proxy_list')
  updateProxyList(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('update_proxy_list', c, body);
  }

  @SubscribeMessage('get_log')
  getLog(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('get_log', c, body);
  }

  @SubscribeMessage('get_list_wait_task')
  getListWaitTask(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('get_list_wait_task', c, body);
  }

  @SubscribeMessage('server.get_open_ai_account_preload_list')
  serverGetOpenAiAccountPreloadList(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('server.get_open_ai_account_preload_list', c, body);
  }

  @SubscribeMessage('server.open_ai.run_account_preload')
  serverOpenAiRunAccountPreload(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('server.open_ai.run_account_preload', c, body);
  }

  @SubscribeMessage('server.open_ai.reset_account_error')
  serverOpenAiResetAccountError(@ConnectedSocket() c: Socket, @MessageBody() body: unknown) {
    return this.call('server.open_ai.reset_account_error', c, body);
  }
}
