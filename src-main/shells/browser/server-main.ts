import { canonicalJson } from '@shared/util/canonical-json'; console.log('server', canonicalJson({b:1,a:2}))
