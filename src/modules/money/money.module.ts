import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MoneyAccess } from './money-access.js';
import { MoneyCsvService } from './money-csv.service.js';
import { MoneyReportService } from './money-report.service.js';
import { MoneyController } from './money.controller.js';
import {
  MoneyBoxEntity, MoneyBoxTagEntity, MoneyBoxUserEntity, MoneyDayEntity, MoneyRuleEntity, MoneyTagDayEntity, MoneyTagRelayEntity, MoneyTransactionEntity,
} from './money.entities.js';
import { MoneyService } from './money.service.js';

/** Money (issue 21; 001 §2 "Money"; docs/money.md): boxes, transactions, tags, rules, the report and CSV. */
@Module({
  imports: [TypeOrmModule.forFeature([MoneyBoxEntity, MoneyBoxUserEntity, MoneyTransactionEntity, MoneyTagRelayEntity, MoneyBoxTagEntity, MoneyDayEntity, MoneyTagDayEntity, MoneyRuleEntity])],
  controllers: [MoneyController],
  providers: [MoneyAccess, MoneyService, MoneyReportService, MoneyCsvService],
  exports: [MoneyService],
})
export class MoneyModule {}
