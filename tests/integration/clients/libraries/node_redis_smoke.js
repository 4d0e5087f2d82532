// node-redis 4 against a server on the port given: the calls a node app makes.
// With a second argument, a directory of test certificates (tests/support.py's
// TlsCerts), it speaks TLS: the server checked against ca.crt, redis.crt as
// the client's certificate (the test certificates name no host).
const { createClient } = require('redis');
const fs = require('fs');
const path = require('path');
(async () => {
  const port = Number(process.argv[2]);
  const certs = process.argv[3];
  const out = [];
  const socket = { port, host: '127.0.0.1' };
  if (certs) {
    Object.assign(socket, {
      tls: true,
      ca: fs.readFileSync(path.join(certs, 'ca.crt')),
      cert: fs.readFileSync(path.join(certs, 'redis.crt')),
      key: fs.readFileSync(path.join(certs, 'redis.key')),
      checkServerIdentity: () => undefined,
    });
  }
  const client = createClient({ socket });
  client.on('error', (e) => { console.error('client error', e); process.exit(2); });
  await client.connect();
  await client.flushAll();
  out.push(await client.set('k', 'v', { EX: 100 }));
  out.push(await client.get('k'));
  out.push(await client.ttl('k'));
  out.push(await client.hSet('h', { a: '1', b: '2' }));
  out.push(JSON.stringify(await client.hGetAll('h')));
  out.push(await client.incrBy('n', 5));
  out.push(JSON.stringify(await client.multi().incr('n').lPush('l', ['x', 'y']).lRange('l', 0, -1).exec()));
  out.push(JSON.stringify(await client.zRangeWithScores('nz', 0, -1)));
  await client.zAdd('z', [{ score: 1, value: 'a' }, { score: 2.5, value: 'b' }]);
  out.push(JSON.stringify(await client.zRangeWithScores('z', 0, -1)));
  out.push(await client.eval("return redis.call('get', KEYS[1])", { keys: ['k'] }));
  const sub = client.duplicate();
  await sub.connect();
  const got = new Promise((resolve) => sub.subscribe('chan', (msg) => resolve(msg)));
  await new Promise((r) => setTimeout(r, 100));
  out.push(await client.publish('chan', 'hello'));
  out.push(await got);
  const blocker = client.duplicate();
  await blocker.connect();
  const popped = blocker.blPop('q', 5);
  await new Promise((r) => setTimeout(r, 100));
  await client.rPush('q', 'job1');
  out.push(JSON.stringify(await popped));
  out.push(JSON.stringify((await client.scan(0, { MATCH: 'k*', COUNT: 100 })).keys.sort()));
  out.push((await client.info('server')).includes('redis_version:7.0.15'));
  console.log(out.join('\n'));
  await sub.quit(); await blocker.quit(); await client.quit();
})().catch((e) => { console.error(e); process.exit(1); });
