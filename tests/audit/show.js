// show.js VIEWFILE [x y R]: prints the city around (x,y) as a grid of card ids (top cards)
const v = require(process.argv[2]); const S = require('./scorer.js');
const cx = +process.argv[3], cy = +process.argv[4], R = +(process.argv[5] || 4);
const city = S.cityFrom(v);
console.log('phase', v.phase, 'power', v.power_played, 'mayor', v.mayor, 'timed', JSON.stringify(v.timed));
for (let y = cy - R; y <= cy + R; y++) {
  let line = String(y).padStart(2) + ' ';
  for (let x = cx - R; x <= cx + R; x++) {
    const c = city.cells.get(x + ',' + y);
    let t = c ? (c.top ? c.top.id.slice(0, 10) : (c.scorched ? '#scorched' : '.empty')) : '';
    if (c && c.top) t += ':' + (c.top.road || '') + '/' + (c.top.rail || '') + (c.top.power ? 'P' : '');
    line += (x === cx && y === cy ? '*' : ' ') + t.padEnd(19);
  }
  console.log(line);
}
console.log('   ' + Array.from({ length: 2 * R + 1 }, (_, i) => String(cx - R + i).padEnd(20)).join(''));
