export { appendDurable } from "./append.ts";
export { isInside } from "./contain.ts";
export { createFileExclusive } from "./exclusive.ts";
export { currentOwner, ownerState, parseOwner, processAlive } from "./owner.ts";
export type { ProcessOwner } from "./owner.ts";
export { removeAbandonedReplaceTemps, replaceFile, replaceFileSync } from "./replace.ts";
export { isSwapSibling, swapDirectory, swapDirectorySync } from "./swap.ts";
