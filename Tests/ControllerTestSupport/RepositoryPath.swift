import Foundation

/// The repository root, found from this file so the tests run from any working directory.
package let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

package func repositoryPath(_ relative: String) -> String { repositoryRoot.appendingPathComponent(relative).path }
