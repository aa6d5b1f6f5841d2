import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutsideModule } from '../../core/outside/outside.module.js';
import { CfgConfigsModule } from '../cfg-configs/cfg-configs.module.js';
import { SrvModule } from '../srv/srv.module.js';
import { AccessLogEntity, BlockRuleEntity, FirewallSettingEntity, IpMinuteEntity, IpRuleEntity, LogCursorEntity, TrafficHourEntity } from './firewall.entities.js';
import { FirewallController } from './firewall.controller.js';
import { NnAutoBanEntity, NnModelEntity, TrainDataEntity } from './train/firewall-train.entities.js';
import { FirewallTrafficService } from './traffic/firewall-traffic.service.js';
import { FirewallRulesService } from './rules/firewall-rules.service.js';
import { FirewallSyncService } from './sync/firewall-sync.service.js';
import { AccessLogStore } from './worker/access-log.store.js';
import { FirewallWorkerService } from './worker/firewall-worker.service.js';
import { FirewallTrainService } from './train/firewall-train.service.js';
import { FirewallScoreService } from './train/firewall-score.service.js';
import { LogParsePool } from './worker/log-parse.pool.js';
import { WhoisService } from './whois.service.js';
import { IpFeatureMinuteEntity, IpFeatureSumEntity } from './train/feature-minutes.entity.js';
import { FeatureRollupService } from './train/feature-rollup.service.js';

/**
 * Firewall and traffic (000 §2 "Firewall and traffic"): IP rules, block lists, the allowlist. Admin only.
 * By concern: traffic/ (reports, rollups), rules/ (IP and block rules, allowlist), sync/ (ipset on the
 * proxies), worker/ (log reads, parsing, storage), train/ (features, the neural score, auto-bans);
 * whois.service.ts the method over the whois client of src/core/outside.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([AccessLogEntity, IpMinuteEntity, IpRuleEntity, BlockRuleEntity, LogCursorEntity, FirewallSettingEntity, TrafficHourEntity, TrainDataEntity, NnModelEntity, NnAutoBanEntity, IpFeatureMinuteEntity, IpFeatureSumEntity]),
    SrvModule,
    CfgConfigsModule,
    // whois and the AI report (src/core/outside)
    OutsideModule,
  ],
  providers: [
    FirewallRulesService, FirewallSyncService, FirewallTrafficService,
    // the worker: log reads over SSH, parsing in worker threads (closed with the module), storage
    { provide: LogParsePool, useFactory: () => new LogParsePool() }, AccessLogStore, FirewallWorkerService,
    // whois of an address (firewall.getIpWhois): the outside client, cached a day in the answer cache
    WhoisService,
    // the neural score (Firewall II): marks and training, scores, auto-bans and the AI report
    FirewallTrainService, FirewallScoreService,
    // per-minute feature counters of the score, rolled up by the traffic job (feature-rollup.service.ts)
    FeatureRollupService,
  ],
  controllers: [FirewallController],
  exports: [FirewallRulesService, FirewallSyncService, FirewallTrafficService, FirewallWorkerService, AccessLogStore, FeatureRollupService],
})
export class FirewallModule {}
