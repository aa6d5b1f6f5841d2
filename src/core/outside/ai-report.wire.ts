/**
 * The AI report service's answer (000 §7 "POST /py/ai/report with domain and data; reads res"): a JSON
 * object with `res` (free-form: the screen shows it as it is).
 */
import { z } from 'zod';

export const AiReportAnswerWire = z.record(z.string(), z.unknown()).refine((o) => 'res' in o, { message: 'without res' }).transform((o) => o.res);

/** What the console posts: the host and the data the firewall area gathered for it. */
export interface AiReportRequest {
  domain: string;
  data: unknown;
}
