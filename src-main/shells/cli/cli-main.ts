console.log('cli')
