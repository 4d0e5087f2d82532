// node-redis 4's createCluster against the cluster whose first node's port is
// given: writes and reads, MGET with a hash tag, a MULTI routed by its key,
// PUBLISH, and SPUBLISH routed by its channel. Prints one result a line.
const { createCluster } = require('redis');
(async () => {
  const port = Number(process.argv[2]);
  const cluster = createCluster({ rootNodes: [{ socket: { host: '127.0.0.1', port } }] });
  cluster.on('error', (e) => { console.error('cluster error', e); process.exit(2); });
  await cluster.connect();
  const out = [];
  for (let i = 0; i < 200; i++) await cluster.set(`key:${i}`, `v${i}`);
  let same = 0;
  for (let i = 0; i < 200; i++) if ((await cluster.get(`key:${i}`)) === `v${i}`) same++;
  out.push(same);
  await cluster.mSet(['{u}a', '1', '{u}b', '2']);
  out.push(JSON.stringify(await cluster.mGet(['{u}a', '{u}b', '{u}c'])));
  out.push(JSON.stringify(await cluster.multi('{u}').incr('{u}n').incr('{u}n').get('{u}a').exec()));
  out.push(await cluster.publish('news', 'hello'));
  out.push(await cluster.sendCommand('{u}ch', false, ['SPUBLISH', '{u}ch', 'hi']));
  console.log(out.join('\n'));
  await cluster.quit();
})().catch((e) => { console.error(e); process.exit(1); });
