// ioredis's Cluster against the cluster whose first node's port is given:
// writes and reads, MGET with a hash tag, a pipeline, PUBLISH received by a
// subscriber, SPUBLISH received by a sharded subscriber (shardedSubscribers),
// then writes through a master's kill (through_kill.js). Prints one result a
// line.
const Redis = require('ioredis');
const writeThroughKill = require('./through_kill');
const nodes = (port) => [{ host: '127.0.0.1', port }];
const opts = { clusterRetryStrategy: () => 100, retryDelayOnClusterDown: 100, retryDelayOnFailover: 100,
               retryDelayOnTryAgain: 100, maxRedirections: 64 };
const message = (client, event) => new Promise((resolve) => client.once(event, (...args) => resolve(args.join(' '))));
(async () => {
  const port = Number(process.argv[2]);
  const cluster = new Redis.Cluster(nodes(port), opts);
  const out = (line) => console.log(line);
  for (let i = 0; i < 200; i++) await cluster.set(`key:${i}`, `v${i}`);
  let same = 0;
  for (let i = 0; i < 200; i++) if ((await cluster.get(`key:${i}`)) === `v${i}`) same++;
  out(same);
  await cluster.mset('{u}a', '1', '{u}b', '2');
  out(JSON.stringify(await cluster.mget('{u}a', '{u}b', '{u}c')));
  out(JSON.stringify(await cluster.pipeline().incr('{u}n').incr('{u}n').get('{u}a').exec()));
  // pub/sub: a subscriber on the cluster gets what PUBLISH sent anywhere.
  const sub = cluster.duplicate();
  await sub.subscribe('news');
  const got = message(sub, 'message');
  await cluster.publish('news', 'hello');
  out(await got);
  // sharded pub/sub: the subscriber connects to the channel's shard.
  const ssub = new Redis.Cluster(nodes(port), { ...opts, shardedSubscribers: true });
  await ssub.ssubscribe('{u}ch');
  const sgot = message(ssub, 'smessage');
  out(await cluster.spublish('{u}ch', 'hi'));
  out(await sgot);
  sub.disconnect();
  ssub.disconnect();
  // The master is killed: errors until its replica is promoted.
  await writeThroughKill(() => cluster);
  await cluster.quit();
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
