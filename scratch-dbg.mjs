import fs from 'node:fs';
import React from 'react';
import { render, Text, Box, useInput } from 'ink';
const log = (...a) => fs.appendFileSync('/tmp/dbg.log', a.join(' ') + '\n');
const h = React.createElement;
function Probe() {
  const [n, setN] = React.useState(0);
  React.useEffect(() => { log('effect', n, Date.now() % 100000); });
  useInput((input) => { log('handler', n, JSON.stringify(input), Date.now() % 100000); if (input === 'q') process.exit(0); setN(n + 1); });
  return h(Box, { flexDirection: 'column' }, ...Array.from({ length: Number(process.env.N) }, (_, i) => h(Text, { key: i }, `row ${i} `, h(Text, { bold: true }, 'x'), ` ${n}`)));
}
render(h(Probe));
