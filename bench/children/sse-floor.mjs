// Child process: the floor of delivering server-sent events in Node on this machine — a bare
// node:http server that writes one shared frame of FRAME_BYTES to every connected client
// EVENTS_PER_S times a second, and does nothing else. bench/live.mjs connects 1 and 50 clients
// to it, as it does to evio's follow call, and compares the CPU each extra client costs.
//   node bench/children/sse-floor.mjs FRAME_BYTES EVENTS_PER_S   (prints the port on stdout)
import { createServer } from 'node:http';

const frameBytes = Math.max(64, Number(process.argv[2]) || 1024);
const perSecond = Math.max(0.1, Number(process.argv[3]) || 4);
const head = 'event: chunk\nid: 1\ndata: ';
const frame = Buffer.from(`${head}${JSON.stringify({ log: [{ blob: 'x'.repeat(Math.max(0, frameBytes - head.length - 20)) }] })}\n\n`);
const clients = new Set();
createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
  clients.add(res);
  req.on('close', () => clients.delete(res));
}).listen(0, '127.0.0.1', function () {
  process.stdout.write(`${this.address().port}\n`);
});
setInterval(() => {
  for (const res of clients) res.write(frame);
}, 1000 / perSecond);
