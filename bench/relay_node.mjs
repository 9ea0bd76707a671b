// A baseline for bench/load.py: bench/relay_app.py's bare relay on Node's `ws` package
// (npm install --prefix bench). A socket's first message names its room; every later one
// goes to all the room's sockets, itself included; no validation, no storage.
import { createServer } from "node:http";
import { WebSocketServer } from "ws";

const rooms = new Map();
const server = createServer();
const wss = new WebSocketServer({ server, path: "/ws", perMessageDeflate: false });

wss.on("connection", (ws) => {
  let members = null;
  ws.on("message", (data, isBinary) => {
    if (members === null) {
      const room = data.toString("latin1");
      members = rooms.get(room);
      if (members === undefined) rooms.set(room, (members = new Set()));
      members.add(ws);
      return;
    }
    for (const member of members) member.send(data, { binary: isBinary });
  });
  ws.on("close", () => members?.delete(ws));
});

server.listen(0, "127.0.0.1", () => {
  // The line bench/load.py's start_app waits for, as uvicorn prints it.
  console.log(`relay running on http://127.0.0.1:${server.address().port}`);
});
