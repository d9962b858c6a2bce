/**
 * @module
 * What the queue page runs. The proof-of-work solver is a Web Worker made from a Blob of the source below
 * (the page stays self-contained: no asset route, nothing to fetch while the origin is overloaded), hashing
 * with Web Crypto in batches so the promise hand-off is paid once per batch. The submit helper sends the
 * answer to the same URL in the {@link CHALLENGE_HEADER} header — the response seals the result into the
 * ticket cookie — and reloads the page.
 */
import { CHALLENGE_HEADER } from './provider.ts'

/** Counters hashed per await in the worker. */
const BATCH = 64

/** The worker: receives `{ c: challenge, d: difficulty }`, posts back the answer text. */
export const WORKER_SOURCE = `"use strict";
var enc=new TextEncoder();
function zeros(h){var b=0;for(var i=0;i<h.length;i++){if(h[i]===0){b+=8;continue}return b+Math.clz32(h[i])-24}return b}
onmessage=async function(e){var c=e.data.c,d=e.data.d,n=0;
for(;;){var batch=[];for(var i=0;i<${BATCH};i++)batch.push(crypto.subtle.digest("SHA-256",enc.encode(c+":"+(n+i))));
var hs=await Promise.all(batch);for(var j=0;j<hs.length;j++){if(zeros(new Uint8Array(hs[j]))>=d){postMessage(c+":"+(n+j));return}}n+=${BATCH}}};`

/**
 * Defines `waitingRoomChallengeSolved(answer)` on the page: every provider's widget ends by calling it.
 * A failed send reloads too (the next page carries a fresh challenge).
 */
export const SUBMIT_SCRIPT = `<script>window.waitingRoomChallengeSolved=function(a){var h={};h[${JSON.stringify(CHALLENGE_HEADER)}]=a;
var again=function(){location.reload()};fetch(location.href,{headers:h,credentials:"same-origin",cache:"no-store"}).then(again,again)};</script>`

/** Starts the worker on the challenge in the element `#wr-challenge` (its data attributes). */
export const SOLVER_SCRIPT = `<script>(function(){var el=document.getElementById("wr-challenge");if(!el)return;
var src=${JSON.stringify(WORKER_SOURCE)};var w=new Worker(URL.createObjectURL(new Blob([src],{type:"text/javascript"})));
var t0=performance.now();w.onmessage=function(e){el.setAttribute("data-solved-ms",String(Math.round(performance.now()-t0)));w.terminate();
window.waitingRoomChallengeSolved(e.data)};
w.postMessage({c:el.getAttribute("data-challenge"),d:Number(el.getAttribute("data-difficulty"))})})();</script>`
