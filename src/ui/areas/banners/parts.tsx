/** CTR as the banner screens show it: one decimal and a per cent sign. */
export const ctrText = (ctr: number) => `${ctr.toFixed(1)}%`;
