package sshx

import (
	"github.com/pkg/sftp"
)

// SFTP tuning. OpenSSH's sftp keeps 64 requests of 32 KiB in flight; the
// same window with pkg/sftp's concurrent reads and writes keeps a 100 MiB
// transfer within a few MiB of memory while matching its throughput.
const (
	SFTPPacket      = 32 << 10
	SFTPConcurrency = 64
)

// SFTP opens an SFTP session on this connection.
func (c *Client) SFTP() (*sftp.Client, error) {
	cl, err := sftp.NewClient(c.SSH,
		sftp.MaxPacketChecked(SFTPPacket),
		sftp.MaxConcurrentRequestsPerFile(SFTPConcurrency),
		sftp.UseConcurrentReads(true),
		sftp.UseConcurrentWrites(true),
	)
	if err != nil {
		return nil, c.connErr(err)
	}
	return cl, nil
}
