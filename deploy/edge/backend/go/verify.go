// Package aditus checks an aditus-queue pass in a Go backend with
// github.com/golang-jwt/jwt/v5:
//
//	claims, err := aditus.VerifyPass(token, secret, "sale")
//	if err != nil { http.Redirect(w, r, "https://queue.example/queue/sale", http.StatusFound) }
//
// Only HS256; issuer aditus-queue; audience the queue's slug; exp required.
package aditus

import "github.com/golang-jwt/jwt/v5"

func VerifyPass(token, secret, queue string) (jwt.MapClaims, error) {
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(token, claims,
		func(*jwt.Token) (any, error) { return []byte(secret), nil },
		jwt.WithValidMethods([]string{"HS256"}),
		jwt.WithIssuer("aditus-queue"),
		jwt.WithAudience(queue),
		jwt.WithExpirationRequired())
	if err != nil {
		return nil, err
	}
	return claims, nil
}
