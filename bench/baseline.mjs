// The baseline: a bare node:http server answering every request with a constant JSON body of a given
// size (the size of a BMS client response), after reading the request body. The practical limit of one
// Node core, against which BMS is measured in the same run.
import http from 'node:http';

const [port, size] = process.argv.slice(2).map(Number);
const filler = 'x'.repeat(Math.max(0, size - 40));
const body = Buffer.from(JSON.stringify({ data: { id: 'baseline', filler }, meta: {} }).padEnd(size, ' '));

http
  .createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
      response.end(body);
    });
  })
  .listen(port, '127.0.0.1', () => process.send?.('ready'));
