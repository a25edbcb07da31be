import D from 'better-sqlite3';
const c = new D(process.argv[2], { readonly: true });
console.log('sqlite', c.prepare('select sqlite_version() v').get().v);
const A = c.prepare('select id from accounts order by created_at desc limit 1').get().id;
for (const q of process.argv.slice(3)) console.log(q.slice(0, 120), '\n   ', c.prepare('explain query plan ' + q.replaceAll('$A', `'${A}'`)).all().map((r) => r.detail).join('; '));
