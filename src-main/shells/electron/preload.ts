console.log('preload')
