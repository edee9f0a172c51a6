const U=process.env.AUDIT_URL;
async function j(m,p,b,t){const r=await fetch(U+p,{method:m,headers:{'content-type':'application/json',...(t?{authorization:'Bearer '+t}:{})},body:b?JSON.stringify(b):undefined});const x=await r.text();try{return {s:r.status,b:JSON.parse(x)}}catch(e){return {s:r.status,b:x}}}
(async()=>{
 let r=await j('GET','/rulesets'); console.log(JSON.stringify(r.b.rulesets.find(x=>x.id=='simcity')));
 r=await j('POST','/games',{game:'simcity',seats:3,bots:['greedy','random'],name:'Ada',seed:12345}); console.log(r.s,JSON.stringify(r.b));
 const id=r.b.id,tok=r.b.token;
 await new Promise(s=>setTimeout(s,500));
 let h=await j('GET',`/games/${id}/hand`,null,tok); console.log(JSON.stringify(h.b).slice(0,3000));
 let v=await j('GET',`/games/${id}`); console.log(JSON.stringify(v.b).slice(0,4000));
 let e=await j('GET',`/games/${id}/events?after=0`); console.log(JSON.stringify(e.b).slice(0,4000));
})();
