/** Every area module, one per spec area. Each area appends its module here. */
export const AREA_MODULES = [];
