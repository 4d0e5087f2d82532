// ioredis's Cluster against the cluster whose first node's port is given:
// writes and reads, MGET with a hash tag, a pipeline, SPUBLISH routed by its
// channel. Prints one result a line.
const Redis = require('ioredis');
(async () => {
  const port = Number(process.argv[2]);
  const cluster = new Redis.Cluster([{ host: '127.0.0.1', port }]);
  const out = [];
  for (let i = 0; i < 200; i++) await cluster.set(`key:${i}`, `v${i}`);
  let same = 0;
  for (let i = 0; i < 200; i++) if ((await cluster.get(`key:${i}`)) === `v${i}`) same++;
  out.push(same);
  await cluster.mset('{u}a', '1', '{u}b', '2');
  out.push(JSON.stringify(await cluster.mget('{u}a', '{u}b', '{u}c')));
  out.push(JSON.stringify(await cluster.pipeline().incr('{u}n').incr('{u}n').get('{u}a').exec()));
  out.push(await cluster.publish('news', 'hello'));
  out.push(await cluster.call('SPUBLISH', '{u}ch', 'hi'));
  console.log(out.join('\n'));
  await cluster.quit();
})().catch((e) => { console.error(e); process.exit(1); });
