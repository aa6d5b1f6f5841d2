/**
 * The AI report service (000 §7 `POST /py/ai/report {domain, data}` -> `{res}`; docs/firewall.md
 * "Neural score"): AI_REPORT_URL and AI_REPORT_TIMEOUT_MS. The firewall area gathers the data and owns
 * the method (firewall.getAiReport); this client only posts it and reads `res`.
 *
 * Not retried: each call asks for a new analysis of new data (a retry could run, and bill, it twice).
 * Not cached: the data posted changes with every call. Two calls at once per instance (the pacer).
 */
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { OutsideServiceView } from '../../contracts/outside.js';
import { AiReportAnswerWire, type AiReportRequest } from './ai-report.wire.js';
import { decodeJson, sendOutside, type Endpoint } from './http.js';
import { Pacer } from './pacer.js';

export const AI_REPORT_PATH = '/py/ai/report';
export const AI_NOT_CONFIGURED_MESSAGE = 'AI report is not configured (AI_REPORT_URL)';

@Injectable()
export class AiReportClient {
  private readonly ep: Endpoint;
  private readonly pacer = new Pacer('ai-report', { concurrent: 2 });

  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    const ms = cfg.aiReport.timeoutMs;
    this.ep = {
      service: 'ai-report',
      baseUrl: cfg.aiReport.url,
      timeoutMs: ms,
      messages: {
        timeout: () => `The AI service did not answer within ${ms / 1000} s`,
        unreachable: (_code, message) => `The AI service could not be reached: ${message}`,
        status: (status, detail) => `The AI service answered ${status}: ${detail}`,
        notJson: (detail) => `The AI service answered no JSON: ${detail}`,
        unexpected: () => 'The AI service answered without res',
        notConfigured: () => AI_NOT_CONFIGURED_MESSAGE,
      },
    };
  }

  get configured(): boolean {
    return !!this.cfg.aiReport.url;
  }

  describe(): OutsideServiceView {
    return { service: 'ai-report', configured: this.configured, target: this.cfg.aiReport.url ?? '', env: ['AI_REPORT_URL', 'AI_REPORT_TIMEOUT_MS'], details: { timeout_ms: this.cfg.aiReport.timeoutMs } };
  }

  /** Posts `{domain, data}` and answers the service's `res`; failures are OutsideErrors worded for the screen. */
  async report(req: AiReportRequest, signal?: AbortSignal): Promise<unknown> {
    return this.pacer.run('all', async () => {
      const res = await sendOutside(this.ep, { method: 'POST', path: AI_REPORT_PATH, body: req, signal });
      return decodeJson(this.ep, res, AiReportAnswerWire);
    }, signal);
  }
}
