// The demo page's loader: adds the waiting room's script tag for the
// queue named in ?queue= (default demo), from ?svc= (default this
// origin) - so tests can point it at any local queue or a dead service.
(function () {
	'use strict';
	var p = new URLSearchParams(location.search);
	var q = p.get('queue') || 'demo';
	var svc = p.get('svc') || '';
	if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(q))
		q = 'demo';
	if (!/^(https?:\/\/[a-z0-9.:-]+)?$/.test(svc))
		svc = '';
	var s = document.createElement('script');
	s.src = svc + '/queue/' + q + '/embed.js';
	s.defer = true;
	document.head.appendChild(s);
}());
