import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CfgConfigsModule } from '../cfg-configs/cfg-configs.module.js';
import { SrvModule } from '../srv/srv.module.js';
import { AccessLogEntity, BlockRuleEntity, FirewallSettingEntity, IpMinuteEntity, IpRuleEntity, LogCursorEntity, TrafficHourEntity } from './firewall.entities.js';
import { FirewallController } from './firewall.controller.js';
import { NnAutoBanEntity, NnModelEntity, TrainDataEntity } from './firewall-train.entities.js';
import { FirewallTrafficService } from './firewall-traffic.service.js';
import { FirewallRulesService } from './firewall-rules.service.js';
import { FirewallSyncService } from './firewall-sync.service.js';
import { AccessLogStore } from './access-log.store.js';
import { FirewallWorkerService } from './firewall-worker.service.js';
import { FirewallTrainService } from './firewall-train.service.js';
import { FirewallScoreService } from './firewall-score.service.js';
import { LogParsePool } from './log-parse.pool.js';
import { WhoisService } from './whois.service.js';
import { IpFeatureMinuteEntity, IpFeatureSumEntity } from './feature-minutes.entity.js';
import { FeatureRollupService } from './feature-rollup.service.js';

/** Firewall and traffic (000 §2 "Firewall and traffic"): IP rules, block lists, the allowlist. Admin only. */
@Module({
  imports: [
    TypeOrmModule.forFeature([AccessLogEntity, IpMinuteEntity, IpRuleEntity, BlockRuleEntity, LogCursorEntity, FirewallSettingEntity, TrafficHourEntity, TrainDataEntity, NnModelEntity, NnAutoBanEntity, IpFeatureMinuteEntity, IpFeatureSumEntity]),
    SrvModule,
    CfgConfigsModule,
  ],
  providers: [
    FirewallRulesService, FirewallSyncService, FirewallTrafficService,
    // the worker: log reads over SSH, parsing in worker threads (closed with the module), storage
    { provide: LogParsePool, useFactory: () => new LogParsePool() }, AccessLogStore, FirewallWorkerService,
    // whois of an address (firewall.getIpWhois): IANA, then the referral, cached a day
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
