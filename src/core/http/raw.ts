import { SetMetadata } from '@nestjs/common';

export const RAW_RESPONSE = 'http:raw';
/** The handler answers its own body (the RPC batch array, health): no envelope around it. */
export const RawResponse = () => SetMetadata(RAW_RESPONSE, true);
