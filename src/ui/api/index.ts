/** The UI's API layer: session store, RPC and REST clients, socket.io client and data hooks. */
export * from './session.js';
export { ApiError, errorText, setUnauthorizedHandler, UNREACHABLE_MESSAGE, type CallOptions, type Failure, type Result, type TimeoutEnvelope } from './http.js';
export { downloadFile, rest, restEnvelope, type Query } from './rest.js';
export { rpc, rpcBatch, rpcEnvelope, type OtherMethod, type RpcCall, type RpcMethods, type RpcName } from './rpc.js';
export { useAsync, useRest, useRpc, useSession, type AsyncOptions, type AsyncState } from './hooks.js';
export { closeSocket, emit, getSocket, on, request, useSocketEvent, useSocketResync, useSocketStatus, type SocketStatus } from './socket.js';
