// node-redis 4's createCluster against the cluster whose first node's port is
// given: writes and reads, MGET with a hash tag, a MULTI routed by its key,
// PUBLISH received by a subscriber on another node (node-redis 4.5's cluster
// has no subscribe of its own, and its client no SSUBSCRIBE: SPUBLISH is
// sent, its receivers counted), then writes through a master's kill
// (through_kill.js). node-redis 4.5 refreshes its slot map only on
// MOVED or ASK, and queues commands for a dead master while it reconnects,
// so the script does what an application must: no offline queue, and after
// errors a new cluster client from the nodes it knows.
// Prints one result a line.
const { createCluster, createClient } = require('redis');
const writeThroughKill = require('./through_kill');
(async () => {
  const port = Number(process.argv[2]);
  const subPort = Number(process.argv[3]);
  const connect = async () => {
    const c = createCluster({
      rootNodes: [port, subPort].map((p) => ({ socket: { host: '127.0.0.1', port: p } })),
      defaults: { disableOfflineQueue: true,
                  socket: { reconnectStrategy: (n) => (n > 3 ? new Error('node down') : 100) } },
    });
    c.on('error', () => {}); // a killed master's link: reported per command
    await c.connect();
    return c;
  };
  // While the dead master still owns its slots, a new client cannot connect.
  const reconnect = async () => {
    for (;;) {
      try {
        return await connect();
      } catch (e) {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  let cluster = await connect();
  const out = (line) => console.log(line);
  for (let i = 0; i < 200; i++) await cluster.set(`key:${i}`, `v${i}`);
  let same = 0;
  for (let i = 0; i < 200; i++) if ((await cluster.get(`key:${i}`)) === `v${i}`) same++;
  out(same);
  await cluster.mSet(['{u}a', '1', '{u}b', '2']);
  out(JSON.stringify(await cluster.mGet(['{u}a', '{u}b', '{u}c'])));
  out(JSON.stringify(await cluster.multi('{u}').incr('{u}n').incr('{u}n').get('{u}a').exec()));
  const sub = createClient({ socket: { host: '127.0.0.1', port: subPort } });
  await sub.connect();
  let received;
  const got = new Promise((resolve) => { received = resolve; });
  await sub.subscribe('news', (msg, ch) => received(`${ch} ${msg}`));
  await cluster.publish('news', 'hello');
  out(await got);
  out(await cluster.sendCommand('{u}ch', false, ['SPUBLISH', '{u}ch', 'hi']));
  await sub.quit();
  await writeThroughKill(() => cluster, async (errors) => {
    if (errors % 10) return;
    cluster.disconnect().catch(() => {});
    cluster = await reconnect();
  });
  cluster.disconnect().catch(() => {}); // the dead master's client is closed
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
