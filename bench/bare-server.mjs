// The ratio's denominator: a bare node:http server in a process of its own, as a reviewer's harness
// runs one. It answers every request with the status and body it is given and two headers only,
// content-type and content-length, and prints its port once listening. Plain JavaScript, so that no
// loader stands between it and node:http.
//
//   node bench/bare-server.mjs <status> <content-type> <body file>
import fs from 'node:fs';
import http from 'node:http';

const [status, contentType, bodyFile] = process.argv.slice(2);
const body = fs.readFileSync(bodyFile);
const headers = { 'content-type': contentType, 'content-length': body.length };

const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(Number(status), headers);
    response.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
