import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutsideModule } from '../../core/outside/outside.module.js';
import { InvestController } from './invest.controller.js';
import { INVEST_ENTITIES } from './invest.entities.js';
import { InvestGateway } from './invest.gateway.js';
import { InvestAccountsService } from './services/accounts.service.js';
import { InvestBrokerService } from './services/broker.service.js';
import { InvestCatalogueService } from './services/catalogue.service.js';
import { InvestForecastService } from './services/forecast.service.js';
import { InvestLiveService } from './services/live.service.js';
import { InvestLocalService } from './services/local.service.js';
import { InvestRefreshService } from './services/refresh.service.js';
import { InvestScreenerService } from './services/screener.service.js';

/**
 * Investments (issue 22; 001 §2 "Investments"; docs/invest.md): broker accounts through the T-Bank
 * Invest API (src/core/outside/tbank.client.ts), local accounts, the sample portfolio, the coupon
 * forecast and calendar, the screener, the refresh jobs' work and the live channel.
 */
@Module({
  imports: [TypeOrmModule.forFeature(INVEST_ENTITIES), OutsideModule],
  controllers: [InvestController],
  providers: [
    InvestCatalogueService, InvestBrokerService, InvestLocalService, InvestAccountsService, InvestForecastService, InvestScreenerService,
    InvestLiveService, InvestRefreshService, InvestGateway,
  ],
  exports: [InvestRefreshService],
})
export class InvestModule {}
