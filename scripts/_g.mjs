import fs from 'node:fs';
const node = () => { let n = 0, on = false; for (const l of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) { if (/^[0-9a-f]+-/.test(l)) on = l.endsWith('/node'); else if (on && l.startsWith('Rss:')) n += Number(l.split(/\s+/)[1]); } return n / 1024; };
global.gc(); const a = process.memoryUsage(); const na = node();
const what = process.argv[2];
if (what.includes('undici')) await import('undici');
if (what.includes('headers')) void globalThis.Headers;
if (what.includes('express')) await import('express');
global.gc(); global.gc(); const b = process.memoryUsage();
console.log(what, 'rss', ((b.rss - a.rss) / 1048576).toFixed(1), 'heap', ((b.heapUsed - a.heapUsed) / 1048576).toFixed(1), 'node binary', (node() - na).toFixed(1));
