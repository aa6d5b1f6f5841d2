import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { SecretBox } from './crypto/secret-box.js';

/** Provides the validated AppConfig and the SecretBox built from its key, to every module. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(cfg: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: APP_CONFIG, useValue: cfg },
        { provide: SecretBox, useValue: new SecretBox(cfg.secretKey) },
      ],
      exports: [APP_CONFIG, SecretBox],
    };
  }
}
