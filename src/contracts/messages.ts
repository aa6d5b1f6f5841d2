/** Messages of 000 §8 and 001 §8, verbatim (misspellings included), plus the console's own. */
export const MSG = {
  saveOk: 'Save ok!',
  saveServerOk: 'Save server ok!',
  connectOk: 'Connectn OK',
  insertOk: 'Insert ok!',
  updateOk: 'Update ok!',
  deleteOk: 'Delete ok!',
  cronSaveOk: 'Save is ok!',
  cronDeleteOk: 'Delete is ok!',
  timeout: 'Time wait end',
  notFoundTitle: '404',
  notFoundText: 'Page not found',
  // The console's own (not in the spec):
  /** Every failed sign-in: unknown login, wrong password, or an account that is not active (with any password). */
  badCredentials: 'Wrong login or password',
  tooManyAttempts: 'Too many failed attempts, try again later',
  sessionRequired: 'Session required: sign in',
  forbidden: 'Forbidden: your role does not allow this',
  /** A call that never reached the server (the UI's fetch failed: network down, server stopped). */
  unreachable: 'The console cannot be reached: check the network or whether the server is running',
  registered: 'Account created: an administrator must activate it before you can sign in',
  loginTaken: 'This login is already taken',
  tooManyRegistrations: 'Too many registrations from this address, try again later',
  registrationClosed: 'Registration is closed until an administrator reviews the accounts waiting for activation',
} as const;

/** Confirm dialog default labels (000 §2), 'Cencel' spelled so. */
export const CONFIRM_LABELS = { trigger: 'Delete', cancel: 'Cencel', confirm: 'Yes' } as const;
