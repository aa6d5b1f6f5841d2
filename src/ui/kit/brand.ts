/** The console's name and the short name on the logo badge (001 §2 "Menu"). */
export const APP_NAME = 'Ops console';
export const APP_SHORT = 'OPS';
