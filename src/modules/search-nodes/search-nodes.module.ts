import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CfgConfigsModule } from '../cfg-configs/cfg-configs.module.js';
import { SrvModule } from '../srv/srv.module.js';
import { SearchHostsService } from './search-hosts.service.js';
import { SearchHostEntity, SearchSourceEntity } from './search-nodes.entities.js';
import { SearchSourcesService } from './search-sources.service.js';
import { SphinxControlService } from './sphinx-control.service.js';

/** Search-node admin (issue 20, 001 §2 "Search-node admin"): RPC only (hosts.*, source.*, sphinx_control.*). Decisions: docs/search-nodes.md. */
@Module({
  imports: [TypeOrmModule.forFeature([SearchHostEntity, SearchSourceEntity]), SrvModule, CfgConfigsModule],
  providers: [SearchHostsService, SearchSourcesService, SphinxControlService],
  exports: [SearchHostsService, SearchSourcesService, SphinxControlService],
})
export class SearchNodesModule {}
