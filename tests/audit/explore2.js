const U=process.env.AUDIT_URL;
async function j(m,p,b,t){const r=await fetch(U+p,{method:m,headers:{'content-type':'application/json',...(t?{authorization:'Bearer '+t}:{})},body:b?JSON.stringify(b):undefined});const x=await r.text();try{return {s:r.status,b:JSON.parse(x)}}catch(e){return {s:r.status,b:x}}}
(async()=>{
 let r=await j('POST','/games',{game:'simcity',seats:3,bots:['greedy','random'],name:'Ada',seed:777});
 const id=r.b.id,tok=r.b.token; let n=0;
 for(;n<400;n++){ let h=await j('GET',`/games/${id}/hand`,null,tok); if(h.b.over||h.b.status!='playing')break;
   if(!h.b.pending){await new Promise(s=>setTimeout(s,50));continue;}
   let o=await j('POST',`/games/${id}/orders`,h.b.pending.suggestion,tok); if(o.s!=202){console.log('ORDER',o.s,JSON.stringify(o.b),JSON.stringify(h.b.pending).slice(0,500));break;}
 }
 let v=await j('GET',`/games/${id}`); console.log(JSON.stringify(v.b).slice(0,2500));
 let e=await j('GET',`/games/${id}/events?after=0`); const types={};
 for(const x of e.b.events){ if(!types[x.type]){types[x.type]=0;console.log(JSON.stringify(x));} types[x.type]++;}
 console.log(JSON.stringify(types), e.b.events.length, JSON.stringify(e.b).length);
 require('fs').writeFileSync('/tmp/scaudit-ev.json',JSON.stringify(e.b)); require('fs').writeFileSync('/tmp/scaudit-view.json',JSON.stringify(v.b));
})();
