// through_kill.js: the part both node cluster scripts share. After "ready",
// waits for the test's line on stdin (it has killed a master), writes
// after:N keys until 200 are acknowledged (40 s at most), reads back the 200
// key:N of before and every acknowledged after:N, and prints the two counts.
// client() gives the cluster client in use; onError(errors) runs after each
// failed write, so a script may replace its client.
const readline = require('readline');
const waitLine = () => new Promise((resolve) => readline.createInterface({ input: process.stdin }).once('line', resolve));
module.exports = async function writeThroughKill(client, onError = async () => {}) {
  console.log('ready');
  await waitLine();
  let acked = 0, errors = 0, i = 0;
  const written = [];
  const deadline = Date.now() + 40000;
  while (acked < 200 && Date.now() < deadline) {
    try {
      await client().set(`after:${i}`, `a${i}`);
      written.push(i);
      acked++;
    } catch (e) {
      errors++;
      await new Promise((r) => setTimeout(r, 50));
      await onError(errors);
    }
    i++;
  }
  console.log(acked);
  let back = 0;
  for (let j = 0; j < 200; j++) if ((await client().get(`key:${j}`)) === `v${j}`) back++;
  for (const j of written) if ((await client().get(`after:${j}`)) === `a${j}`) back++;
  console.log(back);
};
