import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { CompilationGetArgs, CompilationIdArgs, CompilationSaveArgs } from '../../contracts/compilations.js';
import { Role } from '../../contracts/roles.js';
import { RequireRole } from '../../core/auth/actor.js';
import { parseInput } from '../../core/errors.js';
import { CompilationsService } from './compilations.service.js';

/** REST rows of 001 §7 for compilations, under /api/compilation; role 10 (content) as the menu says. */
@Controller('compilation')
@RequireRole(Role.content)
export class CompilationsController {
  constructor(private readonly compilations: CompilationsService) {}

  /** `?Id_compilation=&joinItems=&joinRelay=` one compilation; else `?q=&page=&getCount=&sort=` the list {list, count, page, limit}. */
  @Get('get_list')
  getList(@Query() q: unknown) {
    return this.compilations.get(parseInput(CompilationGetArgs, q ?? {}));
  }

  /** The whole form: {meta_title, meta_description, meta_h1, title_short, type?, body_top?, body_bottom?, items, relay, Id_compilation?}: {Id_compilation, message}. */
  @Post('save')
  @HttpCode(200)
  save(@Body() body: unknown) {
    return this.compilations.save(parseInput(CompilationSaveArgs, body ?? {}));
  }

  /** {Id_compilation}: {message: 'Compilation delete!'}. */
  @Post('delete')
  @HttpCode(200)
  remove(@Body() body: unknown) {
    return this.compilations.remove(parseInput(CompilationIdArgs, body ?? {}));
  }
}
