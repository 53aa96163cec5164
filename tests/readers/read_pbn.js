// The npm package `pbn` (a PBN reader nobody here wrote) on one file: what it reads, as JSON on stdout.
// {"games": [{"tags": {name: value}, "auction": [tokens], "notes": [values]}], "error": null or its message}
const fs = require("fs");
const pbn = require("pbn");

const games = [];
let game = null;
fs.createReadStream(process.argv[2]).pipe(pbn())
  .on("data", d => {
    if (d.type === "game") {
      game = {tags: {}, auction: [], notes: []};
      games.push(game);
    } else if (d.type === "tag" && game) {
      game.tags[d.name] = d.value;
      if (d.name === "Note") game.notes.push(d.value);
      if (d.name === "Auction") game.auction = d.tokens || [];
    }
  })
  .on("error", e => { console.log(JSON.stringify({games, error: e.message})); })
  .on("end", () => { console.log(JSON.stringify({games, error: null})); });
