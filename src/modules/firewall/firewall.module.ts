import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CfgConfigsModule } from '../cfg-configs/cfg-configs.module.js';
import { SrvModule } from '../srv/srv.module.js';
import { AccessLogEntity, BlockRuleEntity, FirewallSettingEntity, IpMinuteEntity, IpRuleEntity, LogCursorEntity } from './firewall.entities.js';
import { FirewallRulesService } from './firewall-rules.service.js';
import { FirewallSyncService } from './firewall-sync.service.js';

/** Firewall and traffic (000 §2 "Firewall and traffic"): IP rules, block lists, the allowlist. Admin only. */
@Module({
  imports: [
    TypeOrmModule.forFeature([AccessLogEntity, IpMinuteEntity, IpRuleEntity, BlockRuleEntity, LogCursorEntity, FirewallSettingEntity]),
    SrvModule,
    CfgConfigsModule,
  ],
  providers: [FirewallRulesService, FirewallSyncService],
  exports: [FirewallRulesService, FirewallSyncService],
})
export class FirewallModule {}
