// undici, imported at the first exchange that needs it (an upstream call, a guarded fetch or post): about
// 80 ms of module loading that the boot does not wait for.
import type * as Undici from 'undici';

let loading: Promise<typeof Undici> | undefined;

export const undici = (): Promise<typeof Undici> => (loading ??= import('undici'));
