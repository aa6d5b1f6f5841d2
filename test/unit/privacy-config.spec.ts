/** The /privacy page's configuration (PRIVACY_OPERATOR_NAME, PRIVACY_OPERATOR_EMAIL, PRIVACY_POLICY_URL): validated, empty = unset. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../config/config.js';

const dir = () => mkdtempSync(join(tmpdir(), 'privacy-cfg-'));

test('unset or empty: null; set: kept (trimmed)', () => {
  expect(loadConfig({ DATA_DIR: dir() }).privacy).toEqual({ operatorName: null, operatorEmail: null, policyUrl: null });
  expect(loadConfig({ DATA_DIR: dir(), PRIVACY_OPERATOR_NAME: '', PRIVACY_OPERATOR_EMAIL: '', PRIVACY_POLICY_URL: '' }).privacy)
    .toEqual({ operatorName: null, operatorEmail: null, policyUrl: null });
  expect(loadConfig({ DATA_DIR: dir(), PRIVACY_OPERATOR_NAME: ' ИП Иванов Иван Иванович ', PRIVACY_OPERATOR_EMAIL: 'privacy@example.org', PRIVACY_POLICY_URL: 'https://example.org/privacy' }).privacy)
    .toEqual({ operatorName: 'ИП Иванов Иван Иванович', operatorEmail: 'privacy@example.org', policyUrl: 'https://example.org/privacy' });
});

test('bad values stop the start naming the variable', () => {
  expect(() => loadConfig({ DATA_DIR: dir(), PRIVACY_OPERATOR_EMAIL: 'not-an-address' })).toThrow(/PRIVACY_OPERATOR_EMAIL/);
  expect(() => loadConfig({ DATA_DIR: dir(), PRIVACY_POLICY_URL: 'javascript:alert(1)' })).toThrow(/PRIVACY_POLICY_URL/);
  expect(() => loadConfig({ DATA_DIR: dir(), PRIVACY_POLICY_URL: 'ftp://example.org/p' })).toThrow(/PRIVACY_POLICY_URL/);
  expect(() => loadConfig({ DATA_DIR: dir(), PRIVACY_OPERATOR_NAME: 'ИП\nИванов' })).toThrow(/PRIVACY_OPERATOR_NAME/);
  expect(() => loadConfig({ DATA_DIR: dir(), PRIVACY_OPERATOR_NAME: 'x'.repeat(201) })).toThrow(/PRIVACY_OPERATOR_NAME/);
});
