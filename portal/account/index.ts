// What the other slices use of account/: the usage that deleted accounts left, which the admin pages erase.
export { erasedUsage } from './deletion.js';
