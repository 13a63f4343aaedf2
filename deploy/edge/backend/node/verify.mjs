// verify.mjs - check an aditus-queue pass in a Node backend with the
// standard jsonwebtoken library (npm install jsonwebtoken):
//
//   import { verifyPass } from './verify.mjs';
//   const claims = verifyPass(token, { secret, queue: 'sale' });
//   if (claims === null) -> send the visitor to the waiting room
//
// Only HS256; issuer aditus-queue; audience the queue's slug; exp checked.
import jwt from 'jsonwebtoken';

export function verifyPass(token, { secret, queue }) {
	try {
		return jwt.verify(token, secret, { algorithms: ['HS256'],
		    issuer: 'aditus-queue', audience: queue });
	} catch {
		return null;
	}
}
