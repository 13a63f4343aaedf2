<?php
// verify.php - check an aditus-queue pass in PHP with firebase/php-jwt
// (composer require firebase/php-jwt):
//
//   $claims = aditus_verify_pass($token, $secret, 'sale');
//   if ($claims === null) { header('Location: https://queue.example/queue/sale'); exit; }
//
// Only HS256 (the Key fixes the algorithm); iss and aud checked here; exp
// by the library.
use Firebase\JWT\JWT;
use Firebase\JWT\Key;

function aditus_verify_pass(string $token, string $secret, string $queue): ?object
{
    try {
        $claims = JWT::decode($token, new Key($secret, 'HS256'));
    } catch (\Throwable $e) {
        return null;
    }
    if (($claims->iss ?? null) !== 'aditus-queue' || ($claims->aud ?? null) !== $queue) {
        return null;
    }
    return $claims;
}
